import { Module } from '@nestjs/common';
import { IdentityController, PortalAdminController } from './identity.controller';
import { IdentityRepository } from './identity.repository';
import { IdentityService } from './identity.service';
import { PageSessions } from './page-sessions';
import { SignInRepository } from './sign-in.repository';
import { SignInThrottle } from './signin-throttle';
import { TokenPurger } from './token-purger';
import { TokenService } from './token.service';
import { UserCallers } from './user-callers';
import { UserListRepository } from './user-list.repository';
import { UsersController } from './users.controller';
import { UsersService } from './users.service';

@Module({
  controllers: [IdentityController, PortalAdminController, UsersController],
  providers: [
    IdentityRepository,
    SignInRepository,
    IdentityService,
    UserCallers,
    TokenService,
    PageSessions,
    SignInThrottle,
    TokenPurger,
    UserListRepository,
    UsersService,
  ],
  exports: [IdentityService, TokenService, PageSessions],
})
export class IdentityModule {}
